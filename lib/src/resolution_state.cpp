// resolution_state: to be written
