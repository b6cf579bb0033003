"""Running one cell: compile it, run it in the user's namespace, evaluate its last expression.

SIGINT raises KeyboardInterrupt only while user code runs (:class:`Interrupts`); one that
arrives while the worker is on its way into a cell is kept and raised as the cell starts,
one between cells is ignored. ``from __future__`` imports hold for later cells, as in a REPL,
and a cell may ``await`` at top level.
"""
import __future__
import ast
import signal
import threading

_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag
_TOP_LEVEL_AWAIT = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)
_CO_COROUTINE = 0x0080


class Interrupts:
    def __init__(self):
        self.armed = False  # user code is running: raise
        self.in_cell = False  # a cell is under way: keep it for when user code starts
        self.pending = False

    def install(self):
        signal.signal(signal.SIGINT, self._on_signal)
        if hasattr(signal, "SIGBREAK"):
            signal.signal(signal.SIGBREAK, self._on_signal)  # Windows: CTRL_BREAK_EVENT

    def _on_signal(self, signum, frame):
        if self.armed:
            self.pending = False
            raise KeyboardInterrupt
        if self.in_cell:
            self.pending = True

    def arm(self):
        self.armed = True
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt

    def disarm(self):
        self.armed = False

    def interrupt_main(self):
        """interrupt_request: SIGINT to the main thread (a sleep there wakes with EINTR)."""
        if hasattr(signal, "pthread_kill"):
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        else:
            signal.raise_signal(signal.SIGINT)  # Windows: the C handler wakes a sleeping main thread


def ends_with_semicolon(code):
    """IPython's rule: a cell whose last token is ';' displays nothing."""
    if ";" not in code.rstrip().rpartition("\n")[2]:
        return False
    import io
    import tokenize

    last = None
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER,
                                  tokenize.INDENT, tokenize.DEDENT):
                last = token
    except (tokenize.TokenError, SyntaxError):
        return False
    return last is not None and last.string == ";"


class Runner:
    """Compiles and runs cells in one namespace; keeps the future flags cells turn on."""

    NOTHING = object()

    def __init__(self, namespace, interrupts):
        self.namespace = namespace
        self.interrupts = interrupts
        self.flags = 0
        self._loop = None

    def run(self, code, filename, interactive):
        """Returns (value, exception, compiling): value is NOTHING unless a last expression ran."""
        value = self.NOTHING
        compiling = True
        try:
            self.interrupts.arm()
            flags = self.flags | (_TOP_LEVEL_AWAIT if ("await" in code or "async" in code) else 0)
            tree = compile(code, filename, "exec", ast.PyCF_ONLY_AST | flags, dont_inherit=True)
            last = None
            if interactive and tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Expression(tree.body.pop().value)
            body = compile(tree, filename, "exec", flags, dont_inherit=True)
            tail = compile(last, filename, "eval", flags, dont_inherit=True) if last is not None else None
            self.flags |= body.co_flags & _FUTURE_FLAGS
            compiling = False
            self._run_code(body)
            if tail is not None:
                value = self._run_code(tail)
            return value, None, False
        except BaseException as error:  # SystemExit and KeyboardInterrupt included: the worker goes on
            return self.NOTHING, error, compiling and isinstance(error, SyntaxError)
        finally:
            self.interrupts.disarm()

    def _run_code(self, code):
        result = eval(code, self.namespace)
        if code.co_flags & _CO_COROUTINE:
            result = self._event_loop().run_until_complete(result)
        return result

    def _event_loop(self):
        # One loop for the session, like IPython's autoawait: tasks a cell starts live on.
        if self._loop is None or self._loop.is_closed():
            import asyncio

            self._loop = asyncio.new_event_loop()
        return self._loop
