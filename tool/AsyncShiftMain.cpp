//===- AsyncShiftMain.cpp - The asyncshift executable ---------------------===//
//
// A thin driver: everything lives in the transforms library (Driver.cpp).
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

int main(int Argc, const char **Argv) { return asyncshift::asyncshiftMain(Argc, Argv); }
