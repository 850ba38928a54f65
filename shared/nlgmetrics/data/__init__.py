"""Small data shipped with the package (lexicons, trained heads), each with its licence."""
