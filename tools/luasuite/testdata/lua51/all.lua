error("the driver of the suite: never run")
