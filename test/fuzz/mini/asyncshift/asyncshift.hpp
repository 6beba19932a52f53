// A stand-in for <asyncshift/asyncshift.hpp>: see bench.hpp next to it.
#pragma once
#include "asyncshift/bench.hpp"
