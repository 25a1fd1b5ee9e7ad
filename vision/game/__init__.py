"""The game model (moves, claim rule, events) and its durable record."""
