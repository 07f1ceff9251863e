"""The registry of constraint families, in the order their rows enter the master."""

from fedopt.constraints import affinity, assignment, bandwidth, capacity, moves, quota, storage

FAMILIES = {
    "assignment": assignment,
    "capacity": capacity,
    "quota": quota,
    "bandwidth": bandwidth,
    "storage": storage,
    "affinity": affinity,
    "moves": moves,
}
