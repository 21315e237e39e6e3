"""Generated code: do not edit; run `python -m service.protogen`."""
