"""What clients talk to: the gRPC servicers, the REST/JSON routes and their OpenAPI document, server
reflection, and the page (``web.py``, files in ``web/``). Imports ``service.ladder``, ``service.match``
and below; the process that serves it (``service.run``) imports it, never the other way."""
