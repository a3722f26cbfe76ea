"""Stage 0, beneath everything: the problem type and its codes, limits on work, the one path
reader, the one output writer, units and papers, JSON pointers, the markup grammar, forked
workers. Nothing here knows a project, a record or a page."""
