// The precompiled header of the Catch2 test sources (`cpp_pch` of the unit test libraries and of
// husk-integration): catch.hpp's 18,000 lines are parsed once per target instead of once per source.
// Nearly every one of those sources includes catch.hpp itself, directly or through its test support header.
#include <catch2/catch.hpp>
