"""Static checks of a server's listing: the lint rules and the function that runs them."""
