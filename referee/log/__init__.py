"""The signed log of a bout: typed events in a hash chain, written durably as they happen,
signed with Ed25519 in a DSSE envelope, and checked again by anyone holding the public key.

Below every other room but the agents: it knows no bout loop, no store and no job.
``events`` (the event models), ``chain`` (write and read the hash chain), ``groupsync`` and
``worklog`` (the working log on disk and its fsyncs), ``signing`` and ``keys`` (keys, envelopes,
the keyring), ``verify`` and ``parallel`` (checking logs, on every core), ``merkle`` (a season's root).
"""
