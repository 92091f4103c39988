"""The ingest process, between the service and the store: which commits are left and in
which order (``driver``), the worker processes that read them (``pipeline``, ``batches``),
each commit's reading bounded in time (``bounded``) and interruptible (``stopping``), one
background ingest at a time (``lock``), and what a run did (``report``). The rows it
writes, and every SQL statement, are the store's (``warpline.store``)."""
