# COLLECTIVES_STRICT_WARNINGS: the warnings HPC codes often turn on in their own builds,
# beyond -Wall -Wextra -Wpedantic, for C++ sources. The project compiles its examples,
# benchmarks, tools and MPI shim with them (collectives_strict_warnings, the root
# CMakeLists.txt), and the add_subdirectory consumer compiles a user's program with them
# and -Werror, so the headers stay quiet under them with g++ and clang++.
include_guard(GLOBAL)
set(_collectives_strict
  -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast -Wnon-virtual-dtor -Woverloaded-virtual
  -Wdouble-promotion -Wformat=2 -Wcast-align -Wundef -Wimplicit-fallthrough -Wzero-as-null-pointer-constant
  -Wextra-semi)
set(_collectives_strict_clang -Wshadow-all -Wcomma)
set(_collectives_strict_gnu -Wuseless-cast -Wduplicated-cond -Wlogical-op)
set(COLLECTIVES_STRICT_WARNINGS
  "$<$<COMPILE_LANGUAGE:CXX>:${_collectives_strict}>"
  "$<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:Clang,AppleClang>>:${_collectives_strict_clang}>"
  "$<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:${_collectives_strict_gnu}>")
