"""The arena as an MCP server: the transports (``server``) and the bouts MCP clients play
(``bouts``). Beside export and the site, above seasons; nothing but the CLI imports it.
"""
