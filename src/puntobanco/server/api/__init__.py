"""HTTP and WebSocket endpoints: dependencies, Pydantic schemas, one router per resource."""
