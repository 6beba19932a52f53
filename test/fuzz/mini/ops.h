// The lit tests' leaf operations over the stand-in runtime header (found
// first on the include path), so the lit inputs can seed the mutation fuzzing.
#pragma once

#include "../../lit/Inputs/ops.h"
