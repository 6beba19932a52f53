// The runtime is C++20 (coroutines, concepts, constinit). Included first by
// the headers every other one reaches (error.hpp, context.hpp, pool.hpp), so
// that an older standard gets this one message before the errors it would
// raise inside them.
#pragma once

#if defined(__cplusplus) && __cplusplus < 202002L && !defined(_MSVC_LANG)
#error "asyncshift's runtime needs C++20: compile with -std=c++20 (or later)"
#endif
