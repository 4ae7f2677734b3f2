// stamper: to be written
