// The static husk-init binary (husk_init.cpp), embedded in husk at build time by embed.py.
#pragma once

#include <cstddef>

namespace husk::init {

extern const unsigned char image_bytes[];
extern const std::size_t image_size;

}  // namespace husk::init
