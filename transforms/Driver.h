//===- Driver.h - The asyncshift command line -------------------*- C++ -*-===//
//
// The whole tool behind tool/AsyncShiftMain.cpp, in the library so that
// tests can drive it too.
//
//===----------------------------------------------------------------------===//
#ifndef ASYNCSHIFT_TRANSFORMS_DRIVER_H
#define ASYNCSHIFT_TRANSFORMS_DRIVER_H

namespace asyncshift {

/// Runs the tool; returns the process exit status.
int asyncshiftMain(int Argc, const char **Argv);

} // namespace asyncshift

#endif
