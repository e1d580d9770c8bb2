"""Deep fuzzing of valid inputs (issue 25): a working base call, then one field changed at a time
to a schema-valid edge value, judged against the base by the oracles. Pure: no I/O, no clock, no
randomness: the seed picks among equivalent edge values through ``edges.SeededPicks``.

``model`` holds the records, ``edges`` plans the calls, ``oracles`` judges their answers.
"""
