assert(string.rep("a", 3) == "aaa")
