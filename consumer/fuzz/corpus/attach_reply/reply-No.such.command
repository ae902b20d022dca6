-1
java.lang.IllegalArgumentException: Unknown diagnostic command
