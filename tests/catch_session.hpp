// The main of both Catch2 programs, husk-unit and husk-integration: Catch2's implementation is compiled once,
// in catch_session.cpp.
#pragma once

namespace husk::test {

// Runs Catch2's session on the command line. Beside Catch2's own options, `--shard K/N` runs only the K-th of
// N shares of the tests the command line selects: those whose name hashes to K (FNV-1a of the name, modulo
// N), so each test always falls to the same shard and adding or renaming one moves no other.
int run_catch_session(int argc, char** argv);

}  // namespace husk::test
