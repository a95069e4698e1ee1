error("the standalone interpreter's tests: never run")
