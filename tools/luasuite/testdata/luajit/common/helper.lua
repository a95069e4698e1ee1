-- A module the blocks require, as the suite's common/ modules.
return { twice = function(x) return 2 * x end }
