"""pytest: the gallery scripts run at documentation build time, not as test modules."""

# (this list shadows the root conftest's for everything under docs/, so build artefacts and the
# figure scripts are listed here too)
collect_ignore_glob = ["gallery/*", "auto_gallery/*", "generated/*", "sg_execution_times.rst",
                       "_build/*", "figures/*", "conf.py", "report_pages.py"]
