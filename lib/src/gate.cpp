// gate: to be written
