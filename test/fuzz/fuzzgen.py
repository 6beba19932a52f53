#!/usr/bin/env python3
"""A seeded generator of callback-style workloads drawn from SPEC §3's patterns.

Programs are built as a small tree (this module's classes), rendered to C++,
and reduced on that tree: every reduction yields another valid program, so the
reducer never has to guess whether a smaller text still compiles (what C-Reduce
does on raw text, this does on the grammar, as Csmith-style reducers do).

What a program is made of, and why each piece is there (docs/transforms/):

  * a block is synchronous statements (declarations of bounded int64 values,
    fire-and-forget ops, pure sync loops) followed by exactly one *tail*, and
    every tail completes the block's handler exactly once on every path:
    complete (`done({}, v)`, `return done(...)`, a failure made here),
    an async call (fake::io, a converted function of the program, a leaf)
    with a continuation (error checked, checked with cleanup that starts
    unwaited work, ignored, negated, passed through), forwarding the handler
    or a named continuation, `if`/`else` with completion in both arms, an
    early `if (c) { ...; return ...; }` followed by the rest (pattern 5),
    a named continuation joined from both arms of an `if` (pattern 4),
    asyncshift::parallel (with and without values), asyncshift::each_series,
    the counter idiom, and the recursive-lambda loop;
  * functions of a program call only later functions of the same program
    (no recursion: every execution ends);
  * every value is bounded (`v % 1000`, sums of few terms), so no overflow:
    the programs are UBSan-clean by construction.

Nothing here depends on anything outside the standard library.
"""
import copy
import random

# ---------------------------------------------------------------------------
# Types and expressions

HANDLER_TYPES = ("i64", "void", "vec")


def cb_type(t):
    return {
        "i64": "asyncshift::callback<std::int64_t>",
        "void": "asyncshift::callback<>",
        "vec": "asyncshift::callback<std::vector<std::int64_t>>",
    }[t]


def cont_params(t, value_name, err_name="err"):
    err = "asyncshift::error %s" % err_name if err_name else "asyncshift::error"
    if t == "i64":
        return "%s, std::int64_t %s" % (err, value_name)
    if t == "vec":
        return "%s, std::vector<std::int64_t> %s" % (err, value_name)
    return err


class Scope:
    """Variables visible at a point: name -> kind ('i64', 'idx', 'int', 'str', 'vec')."""

    def __init__(self, vars=None):
        self.vars = dict(vars or {})

    def child(self):
        return Scope(self.vars)

    def add(self, name, kind):
        self.vars[name] = kind

    def numeric(self):
        return [n for n, k in self.vars.items() if k in ("i64", "idx", "int", "str")]


class Expr:
    """(t1 + t2 + ...) % mod over variables and literals; never overflows.

    A term is ('lit', n), ('var', name) or ('mul', a, b). Variables that are
    not in scope when rendered (after a reduction removed their declaration)
    render as literals, so reduced programs still compile.
    """

    def __init__(self, terms, mod=1000):
        self.terms = terms
        self.mod = mod

    @staticmethod
    def var_text(name, scope):
        kind = scope.vars.get(name)
        if kind == "i64":
            return "%s %% 1000" % name
        if kind == "idx":
            return "static_cast<std::int64_t>(%s)" % name
        if kind == "int":
            return "static_cast<std::int64_t>(%s)" % name
        if kind == "str":
            return "static_cast<std::int64_t>(%s.size())" % name
        return None

    def render(self, scope):
        parts = []
        for t in self.terms:
            if t[0] == "lit":
                parts.append(str(t[1]))
            elif t[0] == "var":
                v = self.var_text(t[1], scope)
                parts.append("(%s)" % v if v else "1")
            else:
                a = self.var_text(t[1], scope)
                b = self.var_text(t[2], scope)
                parts.append("(%s) * (%s)" % (a or "2", b or "3"))
        if not parts:
            parts = ["0"]
        body = " + ".join(parts)
        return "(%s) %% %d" % (body, self.mod)

    def size(self):
        return len(self.terms)


class Cond:
    """`EXPR % m == r`, `EXPR % m != r` or `EXPR < c` (EXPR is non-negative)."""

    def __init__(self, expr, kind, m, r):
        self.expr, self.kind, self.m, self.r = expr, kind, m, r

    def render(self, scope):
        e = self.expr.render(scope)
        if self.kind == "eq":
            return "(%s) %% %d == %d" % (e, self.m, self.r)
        if self.kind == "ne":
            return "(%s) %% %d != %d" % (e, self.m, self.r)
        return "%s < %d" % (e, self.r)


# ---------------------------------------------------------------------------
# Rendering context


class Ctx:
    """What a block is rendered in: its handler, scope, and whether the
    statement it ends must not fall through (the arm of an early `if`)."""

    def __init__(self, prog, handler, htype, scope, indent, recur=None):
        self.prog = prog
        self.handler = handler
        self.htype = htype
        self.scope = scope
        self.indent = indent
        self.recur = recur  # (self name, index var, acc var) inside a recursive loop

    def sub(self, **kw):
        c = copy.copy(self)
        c.scope = kw.pop("scope", self.scope.child())
        for k, v in kw.items():
            setattr(c, k, v)
        return c

    def pad(self, extra=0):
        return "  " * (self.indent + extra)


def completion_args(htype, expr, scope, vec_form=0):
    if htype == "void":
        return "{}"
    if htype == "i64":
        return "{}, %s" % expr.render(scope)
    if vec_form == 0:
        return "{}, std::vector<std::int64_t>{%s, 7}" % expr.render(scope)
    return "{}, {}"


# ---------------------------------------------------------------------------
# Synchronous statements


class Decl:
    def __init__(self, name, expr):
        self.name, self.expr = name, expr

    def render(self, ctx, out):
        out.append("%sstd::int64_t %s = %s;" % (ctx.pad(), self.name, self.expr.render(ctx.scope)))
        ctx.scope.add(self.name, "i64")


class StrDecl:
    """`std::string NAME = "..." + std::to_string(EXPR) + "...";`: a variable with a destructor (its
    text is long enough to live on the heap), read through its size. Continuations and branches
    that read it capture it by value: what a program holding only integers never does."""

    def __init__(self, name, expr):
        self.name, self.expr = name, expr

    def render(self, ctx, out):
        out.append('%sstd::string %s = "text of %s, on the heap: " + std::to_string(%s) + ".";' % (
            ctx.pad(), self.name, self.name, self.expr.render(ctx.scope)))
        ctx.scope.add(self.name, "str")


class SyncLoop:
    """A loop without async work: kept verbatim by every style."""

    def __init__(self, name, expr, count):
        self.name, self.expr, self.count = name, expr, count

    def render(self, ctx, out):
        e = self.expr.render(ctx.scope)
        out.append("%sstd::int64_t %s = 0;" % (ctx.pad(), self.name))
        out.append("%sfor (int j = 0; j < %d; ++j) %s = (%s * 7 + %s + j) %% 1009;" % (
            ctx.pad(), self.count, self.name, self.name, e))
        ctx.scope.add(self.name, "i64")


class Fold:
    """Folds a vector value into a bounded int64."""

    def __init__(self, name, vec):
        self.name, self.vec = name, vec

    def render(self, ctx, out):
        if ctx.scope.vars.get(self.vec) == "vec":
            out.append("%sstd::int64_t %s = fuzz_fold(%s);" % (ctx.pad(), self.name, self.vec))
        else:
            out.append("%sstd::int64_t %s = 5;" % (ctx.pad(), self.name))
        ctx.scope.add(self.name, "i64")


class FireForget:
    """Pattern 8: an op whose continuation ignores its outcome."""

    def __init__(self, op, expr, with_value=True):
        self.op, self.expr, self.with_value = op, expr, with_value

    def render(self, ctx, out):
        cont = "[](asyncshift::error, std::int64_t) {}" if self.with_value else "[](asyncshift::error) {}"
        out.append('%sfake::io("%s", %s, %s);' % (ctx.pad(), self.op, self.expr.render(ctx.scope), cont))


class SyncLeafDecl:
    """A plain (not async) helper call."""

    def __init__(self, name, a, b):
        self.name, self.a, self.b = name, a, b

    def render(self, ctx, out):
        out.append("%sstd::int64_t %s = fuzz_mix(%s, %s);" % (
            ctx.pad(), self.name, self.a.render(ctx.scope), self.b.render(ctx.scope)))
        ctx.scope.add(self.name, "i64")


def render_syncs(syncs, ctx, out):
    for s in syncs:
        s.render(ctx, out)


# ---------------------------------------------------------------------------
# Callees of async calls


class Callee:
    """kind: 'op' (fake::io, value i64), 'fn' (a converted function of the
    program, its handler type), 'leaf' (a synchronous user leaf, i64),
    'annotated' (a leaf forced by [[clang::annotate]], i64)."""

    def __init__(self, kind, name, vtype="i64"):
        self.kind, self.name, self.vtype = kind, name, vtype

    def call(self, arg_text, cont_text):
        if self.kind == "op":
            return 'fake::io("%s", %s, %s)' % (self.name, arg_text, cont_text)
        return "%s(%s, %s)" % (self.name, arg_text, cont_text)


class Block:
    def __init__(self, syncs, tail):
        self.syncs = syncs
        self.tail = tail

    def render(self, ctx, out, returning=False):
        render_syncs(self.syncs, ctx, out)
        self.tail.render(ctx, out, returning)


class ErrMode:
    """How a continuation treats its error.

    check:    if (err) return done(err);
    braced:   if (err) { return done(err); }
    cleanup:  if (err) { fire-and-forget...; return done(err); }
    ignore:   the error parameter is unnamed
    negated:  if (!err) { body } else { cleanup...; return done(err); }
    """

    def __init__(self, kind, cleanup=None):
        self.kind = kind
        self.cleanup = cleanup or []


class Lambda:
    """A continuation lambda: (error, value) -> block."""

    def __init__(self, vtype, value_name, err, body):
        self.vtype, self.value_name, self.err, self.body = vtype, value_name, err, body

    def render_text(self, ctx, lines_out=None):
        """Returns the lambda's text (multi-line)."""
        inner = ctx.sub(indent=ctx.indent + 1)
        if self.vtype != "void":
            inner.scope.add(self.value_name, "i64" if self.vtype == "i64" else "vec")
        out = []
        errname = None if self.err.kind == "ignore" else "err"
        h = ctx.handler
        if self.err.kind in ("check",):
            out.append("%sif (err) return %s(err);" % (inner.pad(), h))
        elif self.err.kind == "braced":
            out.append("%sif (err) {" % inner.pad())
            out.append("%sreturn %s(err);" % (inner.pad(1), h))
            out.append("%s}" % inner.pad())
        elif self.err.kind == "cleanup":
            out.append("%sif (err) {" % inner.pad())
            render_syncs(self.err.cleanup, inner.sub(indent=inner.indent + 1), out)
            out.append("%sreturn %s(err);" % (inner.pad(1), h))
            out.append("%s}" % inner.pad())
        if self.err.kind == "negated":
            out.append("%sif (!err) {" % inner.pad())
            self.body.render(inner.sub(indent=inner.indent + 1), out, returning=True)
            out.append("%s} else {" % inner.pad())
            render_syncs(self.err.cleanup, inner.sub(indent=inner.indent + 1), out)
            out.append("%sreturn %s(err);" % (inner.pad(1), h))
            out.append("%s}" % inner.pad())
        else:
            self.body.render(inner, out)
        head = "[=](%s) {" % cont_params(self.vtype, self.value_name, errname)
        return head + "\n" + "\n".join(out) + "\n" + ctx.pad() + "}"


# ---------------------------------------------------------------------------
# Tails: each completes its block's handler exactly once on every path


class Complete:
    """done({}, v) / return done(...) / a failure made here."""

    def __init__(self, expr, ret=False, fail=None, vec_form=0):
        self.expr, self.ret, self.fail, self.vec_form = expr, ret, fail, vec_form

    def render(self, ctx, out, returning=False):
        if self.fail:
            args = 'asyncshift::error("%s")' % self.fail
        else:
            args = completion_args(ctx.htype, self.expr, ctx.scope, self.vec_form)
        ret = "return " if (self.ret or returning) else ""
        out.append("%s%s%s(%s);" % (ctx.pad(), ret, ctx.handler, args))


class Recur:
    """Inside a recursive-lambda loop: the next iteration."""

    def __init__(self, expr):
        self.expr = expr

    def render(self, ctx, out, returning=False):
        if not ctx.recur:
            raise Invalid("recursion outside a recursive loop")
        selfname, ivar, _ = ctx.recur
        ret = "return " if returning else ""
        out.append("%s%s%s(%s, %s + 1, %s);" % (ctx.pad(), ret, selfname, selfname, ivar,
                                                 self.expr.render(ctx.scope)))


class Call:
    """An async call with a continuation: a lambda, the handler (forwarding),
    or a named continuation (cont is then its name, a str)."""

    def __init__(self, callee, arg, cont, ret=False, then_return=False):
        self.callee, self.arg, self.cont = callee, arg, cont
        self.ret, self.then_return = ret, then_return

    def render(self, ctx, out, returning=False):
        arg = self.arg.render(ctx.scope)
        if isinstance(self.cont, Lambda):
            cont = self.cont.render_text(ctx)
        elif self.cont == "@handler":
            if self.callee.vtype != ctx.htype:
                raise Invalid("forwarding a handler of another type")
            cont = ctx.handler
        else:
            cont = self.cont
        text = self.callee.call(arg, cont)
        if returning and not self.ret and not self.then_return:
            # An arm that must not fall through: `return op(...);` or `op(...); return;`.
            out.append("%sreturn %s;" % (ctx.pad(), text))
        elif self.ret:
            out.append("%sreturn %s;" % (ctx.pad(), text))
        else:
            out.append("%s%s;" % (ctx.pad(), text))
            if self.then_return:
                out.append("%sreturn;" % ctx.pad())


class If:
    """if (c) { A } else { B }: both arms complete."""

    def __init__(self, cond, a, b):
        self.cond, self.a, self.b = cond, a, b

    def render(self, ctx, out, returning=False):
        out.append("%sif (%s) {" % (ctx.pad(), self.cond.render(ctx.scope)))
        self.a.render(ctx.sub(indent=ctx.indent + 1), out, returning)
        out.append("%s} else {" % ctx.pad())
        self.b.render(ctx.sub(indent=ctx.indent + 1), out, returning)
        out.append("%s}" % ctx.pad())


class EarlyIf:
    """if (c) { A; return ...; } rest: pattern 5's early exit."""

    def __init__(self, cond, a, rest):
        self.cond, self.a, self.rest = cond, a, rest

    def render(self, ctx, out, returning=False):
        out.append("%sif (%s) {" % (ctx.pad(), self.cond.render(ctx.scope)))
        self.a.render(ctx.sub(indent=ctx.indent + 1), out, returning=True)
        out.append("%s}" % ctx.pad())
        self.rest.render(ctx, out, returning)


class JoinArm:
    """One arm of a join: sync statements, then one way to reach the named
    continuation: 'direct' next({}, e) / 'call' op(a, [=](err, v) { next(err, e); })
    / 'pass' op(a, next) / 'check' op(a, [=](err, v) { if (err) return next(err, 0); next({}, e); })."""

    def __init__(self, syncs, kind, callee=None, arg=None, expr=None, ret=False):
        self.syncs, self.kind, self.callee, self.arg, self.expr, self.ret = syncs, kind, callee, arg, expr, ret

    def render(self, ctx, out, name, jtype):
        render_syncs(self.syncs, ctx, out)
        p = ctx.pad()
        ret = "return " if self.ret else ""

        def args(err, scope):
            if jtype == "void":
                return err
            return "%s, %s" % (err, self.expr.render(scope))

        if self.kind == "direct":
            out.append("%s%s%s(%s);" % (p, ret, name, args("{}", ctx.scope)))
            return
        arg = self.arg.render(ctx.scope)
        if self.kind == "pass":
            out.append("%s%s%s;" % (p, ret, self.callee.call(arg, name)))
            return
        inner = ctx.scope.child()
        vt = self.callee.vtype
        if vt == "i64":
            inner.add("w", "i64")
        lam_params = cont_params(vt, "w")
        if self.kind == "call":
            body = "%s%s(%s);" % (ctx.pad(1), name, args("err", inner))
        else:
            zero = "err" if jtype == "void" else "err, 0"
            body = "%sif (err) return %s(%s);\n%s%s(%s);" % (ctx.pad(1), name, zero, ctx.pad(1), name,
                                                            args("{}", inner))
        lam = "[=](%s) {\n%s\n%s}" % (lam_params, body, p)
        out.append("%s%s%s;" % (p, ret, self.callee.call(arg, lam)))


class Join:
    """Pattern 4: auto next = [=](error err, T v) {...}; reached from both arms of an if."""

    def __init__(self, name, jtype, value_name, err, body, cond, a, b):
        self.name, self.jtype, self.value_name, self.err, self.body = name, jtype, value_name, err, body
        self.cond, self.a, self.b = cond, a, b

    def render(self, ctx, out, returning=False):
        lam = Lambda(self.jtype, self.value_name, self.err, self.body)
        out.append("%sauto %s = %s;" % (ctx.pad(), self.name, lam.render_text(ctx)))
        out.append("%sif (%s) {" % (ctx.pad(), self.cond.render(ctx.scope)))
        self.a.render(ctx.sub(indent=ctx.indent + 1), out, self.name, self.jtype)
        out.append("%s} else {" % ctx.pad())
        self.b.render(ctx.sub(indent=ctx.indent + 1), out, self.name, self.jtype)
        out.append("%s}" % ctx.pad())
        if returning:
            out.append("%sreturn;" % ctx.pad())


class NCount:
    """A small count: a literal, or `(expr) % m` (possibly 0)."""

    def __init__(self, lit=None, expr=None, m=4):
        self.lit, self.expr, self.m = lit, expr, m

    def render(self, scope):
        if self.lit is not None:
            return str(self.lit)
        return "static_cast<std::size_t>((%s) %% %d)" % (self.expr.render(scope), self.m)


class Parallel:
    """Pattern 6: asyncshift::parallel, with values (i64) or without (void)."""

    def __init__(self, vtype, n, index, branch_handler, branch, cont):
        self.vtype, self.n, self.index, self.bh, self.branch, self.cont = vtype, n, index, branch_handler, branch, cont

    def render(self, ctx, out, returning=False):
        p = ctx.pad()
        bctx = ctx.sub(indent=ctx.indent + 2, handler=self.bh, htype=self.vtype, recur=None)
        bctx.scope.add(self.index, "idx")
        bout = []
        self.branch.render(bctx, bout)
        head = "asyncshift::parallel<std::int64_t>(" if self.vtype == "i64" else "asyncshift::parallel("
        ret = "return " if returning else ""
        out.append("%s%s%s" % (p, ret, head))
        out.append("%s%s," % (ctx.pad(2), self.n.render(ctx.scope)))
        out.append("%s[=](std::size_t %s, %s %s) {" % (ctx.pad(2), self.index, cb_type(self.vtype), self.bh))
        out.extend(bout)
        out.append("%s}," % ctx.pad(2))
        if self.cont == "@handler":
            out.append("%s%s);" % (ctx.pad(2), ctx.handler))
        else:
            c2 = ctx.sub(indent=ctx.indent + 2)
            out.append("%s%s);" % (ctx.pad(2), self.cont.render_text(c2)))


class Series:
    """Pattern 7: asyncshift::each_series."""

    def __init__(self, n, index, step, body, cont):
        self.n, self.index, self.step, self.body, self.cont = n, index, step, body, cont

    def render(self, ctx, out, returning=False):
        p = ctx.pad()
        bctx = ctx.sub(indent=ctx.indent + 2, handler=self.step, htype="void", recur=None)
        bctx.scope.add(self.index, "idx")
        bout = []
        self.body.render(bctx, bout)
        ret = "return " if returning else ""
        out.append("%s%sasyncshift::each_series(" % (p, ret))
        out.append("%s%s," % (ctx.pad(2), self.n.render(ctx.scope)))
        out.append("%s[=](std::size_t %s, asyncshift::callback<> %s) {" % (ctx.pad(2), self.index, self.step))
        out.extend(bout)
        out.append("%s}," % ctx.pad(2))
        if self.cont == "@handler":
            out.append("%s%s);" % (ctx.pad(2), ctx.handler))
        else:
            c2 = ctx.sub(indent=ctx.indent + 2)
            out.append("%s%s);" % (ctx.pad(2), self.cont.render_text(c2)))


class Counter:
    """Pattern 6 by hand: shared counter, once-guard, `done` at zero.
    Completes a void handler (no results) or a vec handler (results)."""

    def __init__(self, uid, n_expr, callee, arg, cleanup, success):
        self.uid, self.n_expr, self.callee, self.arg = uid, n_expr, callee, arg
        self.cleanup, self.success = cleanup, success

    def render(self, ctx, out, returning=False):
        if ctx.htype not in ("void", "vec") or (ctx.htype == "vec" and self.callee.vtype != "i64"):
            raise Invalid("the counter idiom completes a void or vector handler")
        self.with_results = ctx.htype == "vec"
        p, u, h = ctx.pad(), self.uid, ctx.handler
        n = "count%s" % u
        out.append("%sconst std::size_t %s = static_cast<std::size_t>((%s) %% 4);" % (
            p, n, self.n_expr.render(ctx.scope)))
        zero = "{}, {}" if self.with_results else "{}"
        out.append("%sif (%s == 0) return %s(%s);" % (p, n, h, zero))
        out.append("%sauto pending%s = std::make_shared<std::size_t>(%s);" % (p, u, n))
        out.append("%sauto failed%s = std::make_shared<bool>(false);" % (p, u))
        if self.with_results:
            out.append("%sauto results%s = std::make_shared<std::vector<std::int64_t>>(%s);" % (p, u, n))
        idx = "ci%s" % u
        out.append("%sfor (std::size_t %s = 0; %s < %s; ++%s) {" % (p, idx, idx, n, idx))
        lscope = ctx.scope.child()
        lscope.add(idx, "idx")
        lctx = ctx.sub(indent=ctx.indent + 2, scope=lscope)
        arg = self.arg.render(lscope)
        vt = self.callee.vtype
        vname = "cv%s" % u
        body = []
        q = lctx.pad()
        body.append("%sif (*failed%s) return;" % (q, u))
        body.append("%sif (err) {" % q)
        body.append("%s*failed%s = true;" % (lctx.pad(1), u))
        render_syncs(self.cleanup, lctx.sub(indent=lctx.indent + 1), body)
        body.append("%sreturn %s(err);" % (lctx.pad(1), h))
        body.append("%s}" % q)
        if self.with_results:
            body.append("%s(*results%s)[%s] = %s;" % (q, u, idx, vname))
        body.append("%sif (--*pending%s == 0) {" % (q, u))
        sctx = lctx.sub(indent=lctx.indent + 1)
        render_syncs(self.success, sctx, body)
        if self.with_results:
            body.append("%s%s({}, *results%s);" % (sctx.pad(), h, u))
        else:
            body.append("%s%s({});" % (sctx.pad(), h))
        body.append("%s}" % q)
        lam = "[=](%s) {\n%s\n%s}" % (cont_params(vt, vname), "\n".join(body), ctx.pad(1))
        out.append("%s%s;" % (ctx.pad(1), self.callee.call(arg, lam)))
        out.append("%s}" % p)
        if returning:
            out.append("%sreturn;" % p)


class RecLoop:
    """Pattern 7 by hand: auto step = [=](auto &self, int i, std::int64_t acc) -> void {...}; step(step, 0, init);"""

    def __init__(self, uid, n_expr, init, body, final):
        self.uid, self.n_expr, self.init, self.body, self.final = uid, n_expr, init, body, final

    def render(self, ctx, out, returning=False):
        p, u = ctx.pad(), self.uid
        n, step, ivar, acc = "rounds%s" % u, "loop%s" % u, "i%s" % u, "acc%s" % u
        # One to four rounds: the first always waits (fuzz.py's RECLOOP_END_TEST).
        out.append("%sconst int %s = 1 + static_cast<int>((%s) %% 4);" % (p, n, self.n_expr.render(ctx.scope)))
        ctx.scope.add(n, "int")
        lscope = ctx.scope.child()
        lscope.add(ivar, "int")
        lscope.add(acc, "i64")
        lctx = ctx.sub(indent=ctx.indent + 1, scope=lscope, recur=("self", ivar, acc))
        body = []
        fin = completion_args(ctx.htype, self.final, lscope)
        body.append("%sif (%s == %s) return %s(%s);" % (lctx.pad(), ivar, n, ctx.handler, fin))
        self.body.render(lctx, body)
        out.append("%sauto %s = [=](auto &self, int %s, std::int64_t %s) -> void {" % (p, step, ivar, acc))
        out.extend(body)
        out.append("%s};" % p)
        ret = "return " if returning else ""
        out.append("%s%s%s(%s, 0, %s);" % (p, ret, step, step, self.init.render(ctx.scope)))


# ---------------------------------------------------------------------------
# Functions and programs


class Function:
    def __init__(self, name, htype, body):
        self.name, self.htype, self.body = name, htype, body

    def render(self, prog):
        scope = Scope({"x": "i64"})
        ctx = Ctx(prog, "done", self.htype, scope, 1)
        out = ["void %s(std::int64_t x, %s done) {" % (self.name, cb_type(self.htype))]
        self.body.render(ctx, out)
        out.append("}")
        return "\n".join(out)


class Program:
    """One generated program: leaves, converted functions (called only by
    earlier ones), and its entry `<prefix>_main(x, callback<>)`."""

    def __init__(self, prefix, functions, leaves, annotated):
        self.prefix = prefix
        self.functions = functions  # the last is the entry
        self.leaves = leaves  # names of synchronous leaves
        self.annotated = annotated  # names of annotated leaves

    @property
    def entry(self):
        return self.functions[-1].name

    def render(self):
        parts = []
        for leaf in self.leaves:
            parts.append(
                "/// A user leaf: completes synchronously, or fails for some arguments.\n"
                "void %s(std::int64_t a, asyncshift::callback<std::int64_t> cb) {\n"
                "  if (a %% 17 == 3) return cb(asyncshift::error(\"%s refused\"));\n"
                "  cb({}, (a * 7 + 1) %% 1000);\n}" % (leaf, leaf))
        for leaf in self.annotated:
            parts.append(
                "/// A leaf by annotation: it makes an async call, but is kept as written.\n"
                "[[clang::annotate(\"asyncshift::leaf\")]] void %s(std::int64_t a, asyncshift::callback<std::int64_t> cb) {\n"
                "  fake::io(\"%s\", a, cb);\n}" % (leaf, leaf))
        # Callees are defined before callers: f0 first, the entry last.
        for f in self.functions:
            parts.append(f.render(self))
        return "\n\n".join(parts)


PRELUDE = """#include <asyncshift/bench.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fake = asyncshift::fake;

namespace {

/// Folds a vector of values into a small number (synchronous).
std::int64_t fuzz_fold(const std::vector<std::int64_t> &values) {
  std::int64_t s = 0;
  for (std::int64_t v : values) s = (s * 31 + v % 1000) % 100003;
  return s;
}

/// Mixes two small numbers (synchronous).
std::int64_t fuzz_mix(std::int64_t a, std::int64_t b) { return (a * 131 + b * 7 + 3) % 10007; }
"""


def render_bundle(programs, name="fuzz", comment=None):
    """One workload file: every program, and an entry that runs program k % N
    for execution k with x = k / N."""
    out = []
    if comment:
        out.extend("// " + line if line else "//" for line in comment.splitlines())
    out.append(PRELUDE)
    for p in programs:
        out.append(p.render())
        out.append("")
    out.append("} // namespace")
    out.append("")
    n = len(programs)
    out.append("void %s_entry(std::uint64_t k, asyncshift::callback<> done) {" % name)
    out.append("  const auto x = static_cast<std::int64_t>(k / %d);" % n)
    out.append("  const auto which = k %% %d;" % n)
    for i, p in enumerate(programs[:-1]):
        out.append("  if (which == %d) return %s(x, done);" % (i, p.entry))
    out.append("  %s(x, done);" % programs[-1].entry)
    out.append("}")
    out.append("")
    out.append('ASYNCSHIFT_WORKLOAD("%s", %s_entry);' % (name, name))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Generation


class Gen:
    """Random generation with a size budget (number of tails/calls)."""

    # Relative weights of tails, by name.
    WEIGHTS = {
        "complete": 3, "call": 10, "forward": 2, "if": 3, "early_if": 3, "join": 3,
        "parallel": 2, "series": 2, "counter": 2, "recur": 2,
    }

    def __init__(self, rng, prefix, size, strings=False, mapped=False):
        self.rng = rng
        self.prefix = prefix
        self.budget = size
        # With strings, some declarations are std::strings (StrDecl). Off, no
        # random number is drawn for it: every seed gives the programs it gave
        # before the option existed.
        self.strings = strings
        # With mapped, most parallel branches with a value map one call's
        # value (mapped_branch); off, no random number is drawn for it either.
        self.mapped = mapped
        self.uid = 0
        self.ops = 0

    def fresh(self, base):
        self.uid += 1
        return "%s%d" % (base, self.uid)

    def op(self):
        self.ops += 1
        return "%s.op%d" % (self.prefix, self.ops)

    # -- expressions
    def expr(self, scope, mod=1000):
        r = self.rng
        names = scope.numeric()
        terms = []
        for _ in range(r.randint(1, 3)):
            c = r.random()
            if names and c < 0.6:
                terms.append(("var", r.choice(names)))
            elif names and c < 0.7:
                terms.append(("mul", r.choice(names), r.choice(names)))
            else:
                terms.append(("lit", r.randint(0, 50)))
        return Expr(terms, mod)

    def cond(self, scope):
        r = self.rng
        k = r.choice(["eq", "eq", "ne", "lt"])
        m = r.choice([2, 3, 5])
        return Cond(self.expr(scope), k, m, r.randrange(m) if k != "lt" else r.randint(100, 900))

    def ncount(self, scope):
        if self.rng.random() < 0.3:
            return NCount(lit=self.rng.randint(1, 3))
        return NCount(expr=self.expr(scope), m=self.rng.choice([3, 4]))

    # -- sync statements
    def syncs(self, scope, max_n=2):
        r = self.rng
        out = []
        for _ in range(r.randint(0, max_n)):
            c = r.random()
            if c < 0.55 and self.strings and r.random() < 0.4:
                name = self.fresh("t")
                out.append(StrDecl(name, self.expr(scope)))
                scope.add(name, "str")
            elif c < 0.55:
                name = self.fresh("a")
                out.append(Decl(name, self.expr(scope)))
                scope.add(name, "i64")
            elif c < 0.75:
                out.append(FireForget(self.op(), self.expr(scope), r.random() < 0.7))
            elif c < 0.88:
                name = self.fresh("s")
                out.append(SyncLeafDecl(name, self.expr(scope), self.expr(scope)))
                scope.add(name, "i64")
            else:
                name = self.fresh("l")
                out.append(SyncLoop(name, self.expr(scope), r.randint(1, 3)))
                scope.add(name, "i64")
        return out

    def cleanup(self, scope):
        return [FireForget(self.op(), self.expr(scope), self.rng.random() < 0.7) for _ in range(self.rng.randint(1, 2))]

    def errmode(self, scope, allow_negated=True):
        r = self.rng
        c = r.random()
        if c < 0.4:
            return ErrMode("check")
        if c < 0.5:
            return ErrMode("braced")
        if c < 0.75:
            return ErrMode("cleanup", self.cleanup(scope))
        if c < 0.87:
            return ErrMode("ignore")
        if allow_negated:
            return ErrMode("negated", self.cleanup(scope) if r.random() < 0.7 else [])
        return ErrMode("check")

    # -- callees
    def callee(self, fn_ctx, want=None):
        """A callee whose value type is `want` (or any): mostly fake::io ops,
        sometimes a leaf, often a converted function of the program."""
        r = self.rng
        cands = []
        if want in (None, "i64"):
            cands += [("op", None, "i64")] * 5
            cands += [("leaf", leaf, "i64") for leaf in fn_ctx["leaves"]]
            cands += [("annotated", leaf, "i64") for leaf in fn_ctx["annotated"]]
        for fname, ftype in fn_ctx["callable"]:
            if want in (None, ftype):
                cands += [("fn", fname, ftype)] * 2
        if not cands:
            return None
        kind, name, vtype = r.choice(cands)
        return Callee(kind, name if kind != "op" else self.op(), vtype)

    # -- blocks
    def block(self, fn_ctx, scope, htype, depth, recur=None, no_handler_use=False):
        syncs = self.syncs(scope)
        tail = self.tail(fn_ctx, scope, htype, depth, recur)
        return Block(syncs, tail)

    def mapped_branch(self, fn_ctx, scope, depth):
        """A parallel branch that is one call whose continuation passes the
        error on and completes with an expression of the value, the index and
        what the branch sees: `op(a, [=](err, v) { if (err) return got(err);
        got({}, f(v)); })`, which the printers give as promisify(...).map(...)
        when the call is not a converted function."""
        r = self.rng
        # Mostly a runtime op (mapped), sometimes whatever callee() picks (a
        # converted function's branch stays a coroutine, promise or future).
        callee = Callee("op", self.op(), "i64") if r.random() < 0.8 else self.callee(fn_ctx, want="i64")
        if callee is None:
            return self.block(fn_ctx, scope, "i64", depth + 1)
        arg = self.expr(scope)
        inner = scope.child()
        vname = "v" if r.random() < 0.3 else self.fresh("v")
        inner.add(vname, "i64")
        done = Complete(self.expr(inner), ret=False, fail=None, vec_form=0)
        return Block([], Call(callee, arg, Lambda("i64", vname, ErrMode("check"), Block([], done))))

    def completion(self, scope, htype, recur):
        r = self.rng
        if recur and r.random() < 0.7:
            return Recur(self.expr(scope))
        fail = None
        if r.random() < 0.08:
            fail = self.fresh("%s failure " % self.prefix)
        return Complete(self.expr(scope), ret=r.random() < 0.4, fail=fail, vec_form=r.randint(0, 1))

    def tail(self, fn_ctx, scope, htype, depth, recur):
        r = self.rng
        if self.budget <= 0 or depth > 7:
            return self.completion(scope, htype, recur)
        kinds = dict(self.WEIGHTS)
        if recur:
            # Inside a recursive loop: calls and branches, then recur or complete.
            for k in ("forward", "join", "parallel", "series", "counter", "recur"):
                kinds.pop(k, None)
        if htype not in ("void", "vec"):
            kinds.pop("counter", None)
        if htype != "i64" and not self.forward_possible(fn_ctx, htype):
            kinds.pop("forward", None)
        if depth > 5:
            for k in ("parallel", "series", "counter", "recur", "join"):
                kinds.pop(k, None)
        names = list(kinds)
        k = r.choices(names, weights=[kinds[n] for n in names])[0]
        self.budget -= 1
        if k == "complete":
            return self.completion(scope, htype, recur)
        if k == "call":
            callee = self.callee(fn_ctx)
            arg = self.expr(scope)
            inner = scope.child()
            vname = "v" if r.random() < 0.3 else self.fresh("v")
            err = self.errmode(scope)
            if callee.vtype == "i64":
                inner.add(vname, "i64")
            body_syncs = []
            if callee.vtype == "vec":
                inner.add(vname, "vec")
                fname = self.fresh("f")
                body_syncs.append(Fold(fname, vname))
                inner.add(fname, "i64")
            body = self.block(fn_ctx, inner, htype, depth + 1, recur)
            body.syncs = body_syncs + body.syncs
            return Call(callee, arg, Lambda(callee.vtype, vname, err, body), ret=r.random() < 0.2)
        if k == "forward":
            callee = self.callee(fn_ctx, want=htype)
            if callee is None:
                return self.completion(scope, htype, recur)
            return Call(callee, self.expr(scope), "@handler", ret=r.random() < 0.5)
        if k == "if":
            cond = self.cond(scope)
            a = self.block(fn_ctx, scope.child(), htype, depth + 1, recur)
            b = self.block(fn_ctx, scope.child(), htype, depth + 1, recur)
            return If(cond, a, b)
        if k == "early_if":
            cond = self.cond(scope)
            a = self.block(fn_ctx, scope.child(), htype, depth + 1, recur)
            if isinstance(a.tail, Call) and r.random() < 0.5:
                a.tail.then_return = True
            rest = self.block(fn_ctx, scope.child(), htype, depth + 1, recur)
            return EarlyIf(cond, a, rest)
        if k == "join":
            return self.join(fn_ctx, scope, htype, depth)
        if k == "parallel":
            vtype = r.choice(["i64", "void"])
            n = self.ncount(scope)
            index = r.choice(["i", self.fresh("b")])
            bh = r.choice(["got", self.fresh("got")])
            bscope = scope.child()
            bscope.add(index, "idx")
            if vtype == "i64" and self.mapped and r.random() < 0.8:
                branch = self.mapped_branch(fn_ctx, bscope, depth)
            else:
                branch = self.block(fn_ctx, bscope, vtype, depth + 1)
            if vtype == "void" and htype == "void" and r.random() < 0.3:
                cont = "@handler"
            else:
                cscope = scope.child()
                vname = self.fresh("values")
                body_syncs = []
                if vtype == "i64":
                    cscope.add(vname, "vec")
                    fname = self.fresh("f")
                    body_syncs.append(Fold(fname, vname))
                    cscope.add(fname, "i64")
                body = self.block(fn_ctx, cscope, htype, depth + 1)
                body.syncs = body_syncs + body.syncs
                cont = Lambda("vec" if vtype == "i64" else "void", vname, self.errmode(scope), body)
            return Parallel(vtype, n, index, bh, branch, cont)
        if k == "series":
            n = self.ncount(scope)
            index = r.choice(["i", self.fresh("s")])
            step = r.choice(["step", self.fresh("step")])
            bscope = scope.child()
            bscope.add(index, "idx")
            body = self.block(fn_ctx, bscope, "void", depth + 1)
            if htype == "void" and r.random() < 0.3:
                cont = "@handler"
            else:
                cont = Lambda("void", "", self.errmode(scope), self.block(fn_ctx, scope.child(), htype, depth + 1))
            return Series(n, index, step, body, cont)
        if k == "counter":
            uid = self.fresh("")
            callee = self.callee(fn_ctx, want="i64" if htype == "vec" else None)
            lscope = scope.child()
            lscope.add("ci" + uid, "idx")
            arg = self.expr(lscope)
            success = []
            if r.random() < 0.4:
                success = [FireForget(self.op(), self.expr(scope), True)]
            cleanup = self.cleanup(scope) if r.random() < 0.5 else []
            return Counter(uid, self.expr(scope), callee, arg, cleanup, success)
        if k == "recur":
            uid = self.fresh("")
            lscope = scope.child()
            lscope.add("rounds" + uid, "int")
            lscope.add("i" + uid, "int")
            lscope.add("acc" + uid, "i64")
            recur = ("self", "i" + uid, "acc" + uid)
            # The loop body: at least one async call before the next iteration.
            callee = self.callee(fn_ctx, want="i64")
            inner = lscope.child()
            vname = self.fresh("v")
            inner.add(vname, "i64")
            body = self.block(fn_ctx, inner, htype, depth + 2, recur)
            call = Call(callee, self.expr(lscope), Lambda("i64", vname, self.errmode(lscope, False), body))
            loop_body = Block(self.syncs(lscope, 1), call)
            return RecLoop(uid, self.expr(scope), self.expr(scope), loop_body, self.expr(lscope))
        raise AssertionError(k)

    def forward_possible(self, fn_ctx, htype):
        return any(t == htype for _, t in fn_ctx["callable"])

    def join(self, fn_ctx, scope, htype, depth):
        r = self.rng
        name = self.fresh("next")
        jtype = r.choice(["i64", "i64", "void"])
        vname = self.fresh("j")
        bscope = scope.child()
        if jtype == "i64":
            bscope.add(vname, "i64")
        err = self.errmode(scope, allow_negated=False)
        body = self.block(fn_ctx, bscope, htype, depth + 1)
        cond = self.cond(scope)

        def arm():
            s = scope.child()
            syncs = self.syncs(s, 1)
            kinds = ["direct", "call", "call", "check"]
            if jtype == "i64":
                kinds.append("pass")
            kind = r.choice(kinds)
            callee = None
            if kind != "direct":
                callee = self.callee(fn_ctx, want="i64" if kind == "pass" else None)
            return JoinArm(syncs, kind, callee, self.expr(s), self.expr(s), ret=r.random() < 0.4)

        return Join(name, jtype, vname, err, body, cond, arm(), arm())

    # -- programs
    def program(self, nfuncs=None):
        r = self.rng
        nf = nfuncs if nfuncs is not None else r.randint(1, 3)
        leaves = ["%s_leaf" % self.prefix] if r.random() < 0.5 else []
        annotated = ["%s_get" % self.prefix] if r.random() < 0.3 else []
        # Helpers first in generation order from the bottom of the call graph up.
        helpers = []  # (name, type), callable by later-generated (higher) functions
        funcs = []
        per_fn = max(2, self.budget // (nf + 1))
        total = self.budget
        for i in range(nf):
            htype = r.choice(HANDLER_TYPES)
            name = "%s_f%d" % (self.prefix, i)
            fn_ctx = {"callable": list(helpers), "leaves": leaves, "annotated": annotated}
            self.budget = per_fn
            body = self.block(fn_ctx, Scope({"x": "i64"}), htype, 0)
            funcs.append(Function(name, htype, body))
            helpers.append((name, htype))
        fn_ctx = {"callable": list(helpers), "leaves": leaves, "annotated": annotated}
        self.budget = max(per_fn, total - per_fn * nf)
        body = self.block(fn_ctx, Scope({"x": "i64"}), "void", 0)
        funcs.append(Function("%s_main" % self.prefix, "void", body))
        # Store callers first (entry first in the list would break `entry`): keep entry last.
        return Program(self.prefix, funcs, leaves, annotated)


def generate_program(seed, index, size, strings=False, mapped=False):
    """Program number `index` of the run seeded with `seed`; deterministic."""
    rng = random.Random("%d:%d" % (seed, index))
    g = Gen(rng, "p%d" % index, size, strings, mapped)
    return g.program()


# ---------------------------------------------------------------------------
# Reduction: candidate simplifications of a program tree


class Invalid(Exception):
    """A reduction produced a tree that is not a valid program."""


def _children(node):
    """(container, key) pairs of the node's sub-nodes that reductions may replace."""
    out = []
    for k, v in list(vars(node).items()):
        if isinstance(v, (Block, Lambda, ErrMode, JoinArm)) or _is_tail(v):
            out.append((node, k))
        elif isinstance(v, list):
            for i, item in enumerate(v):
                if isinstance(item, (Block, Function)) or _is_tail(item) or _is_sync(item):
                    out.append((v, i))
    return out


def _is_tail(v):
    return isinstance(v, (Complete, Recur, Call, If, EarlyIf, Join, Parallel, Series, Counter, RecLoop))


def _is_sync(v):
    return isinstance(v, (Decl, StrDecl, SyncLoop, Fold, FireForget, SyncLeafDecl))


def _get(c, k):
    return c[k] if isinstance(c, list) else getattr(c, k)


def _set(c, k, v):
    if isinstance(c, list):
        c[k] = v
    else:
        setattr(c, k, v)


def walk(node, visit):
    """Calls visit(container, key, value) for every sub-node, parents first."""
    for c, k in _children(node):
        v = _get(c, k)
        visit(c, k, v)
        walk(v, visit)


def _nodes(prog):
    out = []
    for f in prog.functions:
        walk(f, lambda c, k, v: out.append((c, k, v)))
    return out


def _lit():
    return Expr([("lit", 1)])


def _edits(c, k, v):
    """The simplifications that apply to node v (held at c[k])."""
    kinds = []
    if _is_sync(v) and isinstance(c, list):
        kinds.append("drop")
    if _is_tail(v) and not isinstance(v, (Complete, Recur)):
        kinds.append("complete")
        for attr in ("a", "b", "rest", "body"):
            if isinstance(getattr(v, attr, None), Block):
                kinds.append("hoist:" + attr)
        if isinstance(v, Call) and isinstance(v.cont, Lambda):
            kinds.append("hoist_cont")
            if v.cont.err.kind != "check":
                kinds.append("errcheck")
        if isinstance(v, (Call, Counter)) and v.callee.kind != "op" and v.callee.vtype == "i64":
            kinds.append("to_op")
        if isinstance(v, (Parallel, Series)):
            kinds.append("hoist:branch" if isinstance(v, Parallel) else "hoist:body")
            if isinstance(v.cont, Lambda):
                kinds.append("hoist_pcont")
            if v.n.lit != 1:
                kinds.append("n1")
    if isinstance(v, Complete) and (v.fail or v.expr.size() > 1):
        kinds.append("simple_complete")
    if isinstance(v, JoinArm) and v.kind != "direct":
        kinds.append("arm_direct")
    if isinstance(v, ErrMode) and v.kind != "check":
        kinds.append("errcheck_mode")
    return kinds


def _apply(c, k, v, kind, prefix):
    if kind == "drop":
        c.pop(k)
    elif kind == "complete":
        _set(c, k, Complete(_lit(), ret=getattr(v, "ret", False)))
    elif kind.startswith("hoist:"):
        _set(c, k, _inline_block(c, k, getattr(v, kind.split(":")[1])))
    elif kind == "hoist_cont":
        _set(c, k, _inline_block(c, k, v.cont.body))
    elif kind == "hoist_pcont":
        _set(c, k, _inline_block(c, k, v.cont.body))
    elif kind == "errcheck":
        v.cont.err = ErrMode("check")
    elif kind == "errcheck_mode":
        _set(c, k, ErrMode("check"))
    elif kind == "to_op":
        v.callee = Callee("op", "%s.red" % prefix, "i64")
    elif kind == "n1":
        v.n = NCount(lit=1)
    elif kind == "simple_complete":
        _set(c, k, Complete(_lit(), ret=v.ret))
    elif kind == "arm_direct":
        v.kind = "direct"


def reductions(prog):
    """[(description, thunk)]: each thunk applies one simplification to a copy
    of `prog` and returns it, or None when the result is not a valid program."""
    nodes = _nodes(prog)
    out = []
    for i in range(len(prog.functions) - 1):
        def drop_fn(i=i):
            p2 = copy.deepcopy(prog)
            victim = p2.functions[i].name
            for f in p2.functions:
                walk(f, lambda c, k, v: _replace_callee(v, victim, prog.prefix))
            p2.functions.pop(i)
            return _cleanup(p2)
        out.append(("drop function %s" % prog.functions[i].name, drop_fn))
    for idx, (c, k, v) in enumerate(nodes):
        for kind in _edits(c, k, v):
            def thunk(idx=idx, kind=kind):
                p2 = copy.deepcopy(prog)
                c2, k2, v2 = _nodes(p2)[idx]
                _apply(c2, k2, v2, kind, prog.prefix)
                return _cleanup(p2)
            out.append(("%s %s #%d" % (kind, type(v).__name__, idx), thunk))
    return out


def _replace_callee(v, victim, prefix):
    callee = getattr(v, "callee", None)
    if callee is not None and callee.kind == "fn" and callee.name == victim:
        v.callee = Callee("op", "%s.red" % prefix, "i64")
        if isinstance(v, Call) and isinstance(v.cont, Lambda):
            v.cont.vtype = "i64"
            v.cont.value_name = v.cont.value_name or "v"


def _inline_block(container, key, block):
    """A block's tail replaces a tail; its sync statements go along when the
    replaced tail ends a Block."""
    if isinstance(container, Block) and key == "tail":
        container.syncs.extend(block.syncs)
    return block.tail


def _cleanup(prog):
    """Drops leaves no longer called; None when the tree is no longer a valid
    program (a check made while rendering fails)."""
    try:
        text = prog.render()
    except Invalid:
        return None
    prog.leaves = [l for l in prog.leaves if text.count(l + "(") > 1]
    prog.annotated = [l for l in prog.annotated if text.count(l + "(") > 1]
    return prog


def program_size(prog):
    return len(prog.render())


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="print a generated bundle")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=3)
    ap.add_argument("--size", type=int, default=8)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--strings", action="store_true", help="some variables are std::strings")
    ap.add_argument("--mapped", action="store_true", help="most parallel branches with a value map one call's value")
    a = ap.parse_args()
    progs = [generate_program(a.seed, i, a.size, a.strings, a.mapped) for i in range(a.first, a.first + a.n)]
    print(render_bundle(progs))
