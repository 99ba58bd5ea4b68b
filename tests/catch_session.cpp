// Catch2's implementation, compiled once per build directory for both test programs (catch_session.hpp).
#define CATCH_CONFIG_RUNNER
#include "catch_session.hpp"

#include <catch2/catch.hpp>

namespace husk::test {

int run_catch_session(int argc, char** argv) { return Catch::Session().run(argc, argv); }

}  // namespace husk::test
