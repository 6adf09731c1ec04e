/* recorded: the vendor's script loads; its body is not kept */
