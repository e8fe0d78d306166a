"""Example agents that play the arena through its Python agent API (README, "Bring your own agent")."""
