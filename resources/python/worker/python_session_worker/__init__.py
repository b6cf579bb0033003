"""Python Session's built-in worker: a Jupyter-shaped kernel in the standard library alone.

It runs user code where ipykernel is not installed (CPython 3.8 to 3.13), behaving as the
tools promise: a persistent ``__main__`` namespace, the last expression displayed through
its own ``_repr_*_`` methods, errors naming the cell line, output in print order, interrupts,
figures (resources/python/python_session_common.py, shared with ipykernel kernels), and stdin
closed.

Protocol. The daemon listens on 127.0.0.1 (an ephemeral port) and starts
``<python> start.py`` in a process group of its own with stdin a pipe. It writes one line,
``{"port": <port>, "key": "<hex>"}``, and closes it (argv and the environment are readable by
other users; a pipe is not). The worker points fd 0 at the null device, connects, and from
then on every message either way is one line::

    <hex HMAC-SHA256 of the JSON bytes, keyed with the key's ASCII> <JSON>\\n

where the JSON is ``{"channel", "header", "parent_header", "metadata", "content"}``:
``channel`` is ``shell``, ``control``, ``iopub`` (worker to daemon only) or ``hb``, and the rest is
Jupyter messaging 5.3. Each side verifies every line (constant-time) before parsing it;
lines that fail are dropped and counted, never acted on. The worker's first line is a
``worker_hello`` (its pid); the daemon takes the first connection that sends one correctly
signed and closes its listener. Then the usual: ``kernel_info_request`` (reply, status busy/idle),
``execute_request`` (busy, execute_input, stream/display_data/execute_result/error, reply with
``user_expressions``, idle), ``interrupt_request`` and ``shutdown_request`` on control, and
``ping`` on hb, answered at once by the reader thread. The connection is the lifeline: when
it closes, the worker ends its process group.
"""
