// Leaf operations for the checker's corpus: declared only, so every one of
// them is an async operation completed from the loop (the checker assumes
// so of any function whose body it cannot see).
#pragma once

#include <asyncshift/asyncshift.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace corpus {

using asyncshift::callback;
using asyncshift::error;

void read_file(const std::string &path, callback<std::string> cb);
void write_file(const std::string &path, std::string data, callback<> cb);
void stat_file(const std::string &path, callback<std::int64_t> cb);
void remove_file(const std::string &path, callback<> cb);
void http_get(const std::string &url, callback<std::string> cb);
void sleep_ms(int ms, callback<> cb);
void query(const std::string &sql, callback<std::vector<std::string>> cb);
void exec(const std::string &sql, callback<> cb);
void log(const std::string &line);
void run_loop();

struct socket {
  void send(std::string msg, callback<> cb) const;
  void recv(callback<std::string> cb) const;
  void close(callback<> cb = {}) const;
};
void connect(std::string host, callback<socket> cb);

} // namespace corpus
