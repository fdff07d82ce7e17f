"""Where prices and GPU facts come from and how they are kept.

`pricing` imports neither `solvers` nor `service`: it is the bottom of the dependency stack.
"""
