"""The plain HTTP side of the port: routes, the browser client's static files."""
