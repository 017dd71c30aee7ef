"""The chat: the engineer talks to the agent runtime and sees what it does.

Qt-free (importable and testable without PySide6):
  controller.py    ChatController: conversation state, input and slash commands, run control
                   (start, stop, retry, interrupts and approvals), switching conversations
  model_choice.py  which model/runtime the chat talks through, and keeping it closed properly
  transcript.py    a run's events and stored transcripts, rendered as chat items on a surface
  tool_calls.py    /tool: the engineer calls a tool directly (confirmation, card, outcome)
  commands.py      slash-command parsing and the texts of /help, /tools and /describe
  summaries.py     tool results and arguments as short text
  surface.py       the protocols the controller draws on: the panel implements them
  style.py         colours and status marks shared by the widgets

Qt widgets (render and forward the engineer's actions to the controller):
  panel.py         ChatPanel (the surface) and ChatDock
  cards.py         the chat items: message bubbles, tool cards, questions, notes, errors
  chat_view.py     ChatView, the scrolling column of items
  dialogs.py       the non-blocking confirmation dialogs
  input_line.py    the multi-line input (Enter sends, Shift+Enter breaks), shell-like history
  conversation_bar.py, model_picker.py   the bars above and below the transcript

This __init__ imports nothing, so that importing the controller never loads Qt.
"""
