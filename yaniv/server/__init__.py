"""The web app's server: a FastAPI app with rooms, websockets and storage (``yaniv serve``).

The protocol it speaks is docs/web-protocol.md; the static front end lives in yaniv/web/.
"""
