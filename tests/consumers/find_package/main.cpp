// Consumer smoke test: compiles against the installed/added collectives package.
#include <collectives/collectives.hpp>

static_assert(collectives::Ring<8>{}.size() == 8);

int main()
{
    collectives::Ring<> r{5};
    return r.size() == 5 ? 0 : 1;
}
