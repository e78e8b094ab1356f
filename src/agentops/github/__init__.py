"""GitHub access: ``client`` (the only HTTP session, REST + GraphQL) and ``graphql``
(named query documents). Adapter side of the I/O line."""
