"""Seasons: a plan of bouts with seeds drawn when it is queued (``season``), the shared queue
that leases planned bouts to workers (``queue``), the worker process (``worker``) and a season's
run file (``runfile``), and the planned bouts MCP clients play (``clients``). Above running;
below export, the site, MCP and the console.
"""
