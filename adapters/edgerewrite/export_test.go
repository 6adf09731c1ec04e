package edgerewrite

// SetTokenizerOnly makes Rewrite use the tokenizer alone (true) or the scanner in front of it.
func SetTokenizerOnly(on bool) { tokenizerOnly = on }
