#pragma once
// Whether this build runs under a sanitizer. Threads and the verifier run 5-20x slower
// there, so the tests trim their largest sweeps (the interplay the sanitizers check is
// the same).

// g++ defines __SANITIZE_*__; clang++ answers __has_feature.
#if defined(__SANITIZE_THREAD__)
#define COLLECTIVES_TEST_TSAN 1
#endif
#if defined(__SANITIZE_ADDRESS__)
#define COLLECTIVES_TEST_ASAN 1
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define COLLECTIVES_TEST_TSAN 1
#endif
#if __has_feature(address_sanitizer)
#define COLLECTIVES_TEST_ASAN 1
#endif
#endif
#ifndef COLLECTIVES_TEST_TSAN
#define COLLECTIVES_TEST_TSAN 0
#endif
#ifndef COLLECTIVES_TEST_ASAN
#define COLLECTIVES_TEST_ASAN 0
#endif

namespace collectives::testing {

/// True under ThreadSanitizer.
inline constexpr bool under_tsan = COLLECTIVES_TEST_TSAN != 0;

/// True under ThreadSanitizer or AddressSanitizer.
inline constexpr bool sanitized = under_tsan || COLLECTIVES_TEST_ASAN != 0;

} // namespace collectives::testing
