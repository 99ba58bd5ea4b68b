// The probe's network verbs (net.cpp): `probe net ...` and `probe serve`.
#pragma once

int net_main(int argc, char** argv);
