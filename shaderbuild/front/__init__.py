"""Front end: preprocessor, lexer, parser, semantic analysis (AST → IR)."""
