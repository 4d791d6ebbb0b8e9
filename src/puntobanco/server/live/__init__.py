"""The running tables: the dealer loop per table, the casino that owns them, the WebSocket fan-out."""
