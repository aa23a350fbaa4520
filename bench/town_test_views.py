# Run by bench/town_test_views.sh inside Blender: the held-out split of the town survey,
# rendered by the script that made the dataset with the dataset's own settings, and nothing
# else. The scene and the held-out cameras come from one random sequence (the town first),
# so --n_test N > 24 gives town's 24 held-out views first and N - 24 new ones after them.
import os
import sys

sys.path.insert(0, os.environ["GLINT_TOWN_TOOLS"])
import make_town_scene  # noqa: E402  (found through the path above)

make_town_scene.survey = lambda a, sx, sy: []               # no training views: town has them
make_town_scene.sample_points = lambda objs, n, rng: []     # nor points
make_town_scene.main()
