// The doxbee world for the Node.js peers, op for op as asyncshift's
// runtime/include/asyncshift/doxbee.hpp: every op is one timer of --t ms
// (setTimeout, as bluebird's benchmark/lib/dummy.js), createQuery completes
// synchronously, there is never an existing file. `callbacks` has the
// error-first API, `promises` the same objects returning native promises.
'use strict';

const params = require('./params');

// A cheap deterministic value per (op, arg), as fake::value_of.
function valueOf(op, arg) {
  return ((arg * 2654435761 + op * 40503) >>> 0) % 1000003;
}

function op(id, arg, cb) {
  setTimeout(cb, params.t, null, valueOf(id, arg));
}

function opP(id, arg) {
  return new Promise((resolve) => setTimeout(resolve, params.t, valueOf(id, arg)));
}

const OP = { put: 1, get: 2, commit: 3, rollback: 4, insert: 5, update: 6, fileInsert: 7 };
const noop = () => {};

class Query {
  constructor(id, arg) { this.id = id; this.arg = arg; }
  execWithin(tx, cb) { op(this.id, this.arg ^ tx.id, cb); }
  execWithinP(tx) { return opP(this.id, this.arg ^ tx.id); }
  get(cb) { setTimeout(cb, params.t, null, null); }
  getP() { return new Promise((resolve) => setTimeout(resolve, params.t, null)); }
}

class Transaction {
  constructor(id) { this.id = id; }
  commit(cb) { op(OP.commit, this.id, cb || noop); }
  rollback(cb) { op(OP.rollback, this.id, cb || noop); }
  commitP() { return opP(OP.commit, this.id); }
  rollbackP() { return opP(OP.rollback, this.id); }
}

class Model {
  constructor(base) { this.base = base; }
  insert(a, b) { return new Query(OP.insert, (this.base + a * 31 + (b || 0)) | 0); }
  whereUpdate(id, version) { return new Query(OP.update, (this.base + id * 17 + version) | 0); }
  createHash(v) {
    return (v.userAccountId * 7 + v.date * 13 + v.blobId * 17 + v.creatorId * 19 + v.previousId * 23) % 1000003;
  }
}

class Blob {
  constructor(owner) { this.owner = owner; }
  put(stream, cb) { op(OP.put, this.owner ^ stream.id, cb); }
  putP(stream) { return opP(OP.put, this.owner ^ stream.id); }
}

let uuidCounter = 0;
const world = {
  blobManager: { create: (account) => new Blob(account.id) },
  db: { begin: (k) => new Transaction(k + 1) },
  self: {
    byUuidOrPath: (idOrPath) => new Query(OP.get, idOrPath.length),
    createQuery: (idOrPath, f, cb) => cb(null, new Query(OP.fileInsert, (f.id + f.version) | 0)),
    createQueryP: (idOrPath, f) => Promise.resolve(new Query(OP.fileInsert, (f.id + f.version) | 0)),
  },
  Version: new Model(100),
  File: new Model(200),
  FileVersion: new Model(300),
  userAccount: { id: 1 },
  uuid: { v1: () => ++uuidCounter },
  fakeStream: (k) => ({ id: k }),
  op,
  opP,
};

module.exports = world;
