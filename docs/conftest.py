"""pytest: the gallery scripts run at documentation build time, not as test modules."""

collect_ignore_glob = ["gallery/*", "auto_gallery/*", "generated/*", "sg_execution_times.rst"]
