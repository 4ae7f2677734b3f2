// snapshot: to be written
