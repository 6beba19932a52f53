// Declarations of functions that test/lit/refuse/declared-elsewhere.cpp
// defines: the usual header/source split.
#pragma once

#include <asyncshift/asyncshift.hpp>

void load_user(int id, asyncshift::callback<int> done);
[[clang::annotate("asyncshift::leaf")]] void load_group(int id, asyncshift::callback<int> done);
