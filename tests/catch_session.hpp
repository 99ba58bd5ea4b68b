// The main of both Catch2 programs, husk-unit and husk-integration: Catch2's implementation is compiled once,
// in catch_session.cpp.
#pragma once

namespace husk::test {

// Runs Catch2's session on the command line.
int run_catch_session(int argc, char** argv);

}  // namespace husk::test
