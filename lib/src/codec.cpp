// codec: to be written
