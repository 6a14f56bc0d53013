"""Computer opponents: one module per level, all deciding from a PlayerView only.

>>> from yaniv import Game
>>> bot = get_bot("random", seed=1)
>>> game = Game.new(players=2, seed=3)
>>> game.is_legal(bot.choose(game.view(game.to_move)))
True
"""

from .base import BOTS, Bot, bot_names, get_bot, register

__all__ = ["BOTS", "Bot", "bot_names", "get_bot", "register"]
