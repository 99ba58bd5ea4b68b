// husk-unit's main (Catch2's session: catch_session.cpp).
#include "catch_session.hpp"

int main(int argc, char** argv) { return husk::test::run_catch_session(argc, argv); }
