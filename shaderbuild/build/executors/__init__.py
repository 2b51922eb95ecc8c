"""Executors for `scheduler.build(executor=...)`: remote (Dask) and cached compiles.

    task.py      what a worker runs: compile one target from contents sent with it
    client.py    the local side: scan + read the include closure, write results atomically
    backends.py  where tasks run: inline, a local process pool, a Dask cluster
    runner.py    RemoteExecutor: shared-cache lookups, submission, results, cancellation

See docs/DISTRIBUTED.md.  Opened from project settings by
`shaderbuild.build.distributed_config.open_executor`.
"""
