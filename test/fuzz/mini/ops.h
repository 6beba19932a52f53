// The lit tests' leaf operations (test/lit/Inputs/ops.h) over the stand-in
// runtime header, so the lit inputs can seed the tool's mutation fuzzing.
#pragma once

#include <asyncshift/asyncshift.hpp>

#include <cstdint>
#include <string>

void read_int(int key, asyncshift::callback<int> cb);
void write_int(int key, int value, asyncshift::callback<> cb);
void fetch(std::string url, asyncshift::callback<std::string> cb);
void flush(asyncshift::callback<> cb);
void log_line(const std::string &line);
int compute(int x);

struct connection {
  void send(const std::string &msg, asyncshift::callback<> cb) const;
  void receive(asyncshift::callback<std::string> cb) const;
  void close(asyncshift::callback<> cb = {}) const;
};
