"""The benchmark that runs on the measured machine (here, or on a rented instance).

Imports only torch and the standard library, so it can be zipped and shipped as it is:
`python -m runner.bench job.json result.json`.
"""
