// A small server session: members, `this` captures, stored handlers.
#include "corpus.h"

using namespace corpus;

class session {
public:
  explicit session(socket s) : sock_(s) {}

  // Echoes one message back.
  void echo(callback<> done) {
    sock_.recv([this, done](error err, std::string msg) {
      if (err)
        return done(err);
      sock_.send(msg, done);
    });
  }

  // Keeps the handler until close() is called.
  void on_close(callback<> done) { closers_.push_back(std::move(done)); }

  void close(callback<> done) {
    sock_.close([this, done](error err) {
      for (auto &c : closers_)
        c(err);
      closers_.clear();
      done(err);
    });
  }

  // The greeting lives on the stack of greet(), not in the continuation.
  void greet(std::string name, callback<> done) {
    std::string greeting = "hello " + name;
    sock_.send(greeting, [&](error err) {
      log("sent " + greeting); // expect: asyncshift-dangling-capture
      done(err); // expect: asyncshift-dangling-capture
    });
  }

  // Sends a batch and reports the first failure; `sent` is never read.
  void send_all(std::vector<std::string> msgs, callback<> done) {
    asyncshift::each_series(
        msgs.size(),
        [this, msgs](std::size_t i, callback<> next) {
          sock_.send(msgs[i], [next](error sent) { next({}); }); // expect: asyncshift-error-ignored
        },
        done);
  }

private:
  socket sock_;
  std::vector<callback<>> closers_;
};

// Connects and greets; hands the session to the caller.
void open_session(std::string host, callback<std::shared_ptr<session>> done) {
  connect(host, [=](error err, socket s) {
    if (err)
      return done(err);
    auto sess = std::make_shared<session>(s);
    sess->greet("client", [=](error err) { done(err, sess); });
  });
}

// Echoes once on a session that lives on this function's stack: echo's
// continuation uses `this` after echo_once has returned.
void echo_once(socket s, callback<> done) {
  session sess(s);
  sess.echo(done); // expect: asyncshift-dangling-capture
}

// The same with the session kept alive by the continuation: no finding.
void echo_shared(socket s, callback<> done) {
  auto sess = std::make_shared<session>(s);
  sess->echo([sess, done](error err) { done(err); });
}
